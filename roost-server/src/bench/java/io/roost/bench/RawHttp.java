package io.roost.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection that sends prepared request bytes and reads the status and
 * the body's length. A load generator on the same 2 cores as the server must cost far less than
 * the server per request; java.net.http's client costs about as much as a light handler.
 */
final class RawHttp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RawHttp(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(30_000); // a lost answer fails the request instead of hanging the run
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 8192);
    }

    /** The request line and headers up to (not including) the blank line; adds Content-Length and the body. */
    static byte[] post(String host, String path, String headers, byte[] body) {
        return request("POST", host, path, headers, body);
    }

    /** A body-less GET with the given header lines (each ending in CRLF). */
    static byte[] get(String host, String path, String headers) {
        return request("GET", host, path, headers, new byte[0]);
    }

    private static byte[] request(String method, String host, String path, String headers, byte[] body) {
        byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + headers
                + (method.equals("GET") ? "" : "Content-Length: " + body.length + "\r\n")
                + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return request;
    }

    /** Sends one request and reads its whole response; returns the status code. */
    int exchange(byte[] request) throws IOException {
        out.write(request);
        out.flush();
        String statusLine = line();
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = 0;
        for (String header; !(header = line()).isEmpty(); ) {
            if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Long.parseLong(header.substring(15).trim());
            }
        }
        for (long skipped = 0; skipped < length; ) {
            long n = in.skip(length - skipped);
            if (n <= 0) {
                if (in.read() < 0) {
                    throw new IOException("connection closed mid-body");
                }
                n = 1;
            }
            skipped += n;
        }
        return status;
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    /** Closes the socket; a failure to close a load generator's connection is of no interest. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // the connection is gone either way
        }
    }
}
