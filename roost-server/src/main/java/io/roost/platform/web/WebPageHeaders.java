package io.roost.platform.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The web chat's static files ({@code /chat/}): a page that runs only its own scripts and styles,
 * shows images only from the server and the object URLs it makes of downloads, talks only to its
 * own origin (REST and the WebSocket), and cannot be framed. The files carry no version in their
 * names, so a browser revalidates them (ETag, Last-Modified) instead of keeping an old app.
 */
@WebFilter(urlPatterns = {"/chat/*", "/lib/*"})
public class WebPageHeaders extends HttpFilter {

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("Cache-Control", "no-cache");
        chain.doFilter(request, response);
    }
}
