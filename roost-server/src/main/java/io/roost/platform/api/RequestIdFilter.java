package io.roost.platform.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Gives every request its id ({@link RequestIds}) before anything else runs (mapped first in
 * web.xml): the request attribute, the response header, and the logging MDC for as long as the
 * request runs on this thread (work handed to another thread, such as a batched send, logs without it).
 */
public class RequestIdFilter extends HttpFilter {

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String id = RequestIds.accept(request.getHeader(RequestIds.HEADER));
        request.setAttribute(RequestIds.ATTRIBUTE, id);
        response.setHeader(RequestIds.HEADER, id);
        RequestIds.enter(id);
        try {
            chain.doFilter(request, response);
        } finally {
            RequestIds.clear();
        }
    }
}
