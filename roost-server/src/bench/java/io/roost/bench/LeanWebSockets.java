package io.roost.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A WebSocket client for load generation: one selector thread drives every connection (upgrade,
 * text frames, close, ping), so tens of thousands of devices cost the benchmark machine little
 * next to the server under test ({@code java.net.http.WebSocket} costs about as much CPU per login
 * as the server does). Every callback and {@link #connect}, {@link #send}, {@link #close},
 * {@link #schedule} run on that thread; other threads hand work over with {@link #execute}.
 * Frames are masked with a zero key (legal, RFC 6455 §5.3), so payloads go out as they are.
 */
final class LeanWebSockets implements AutoCloseable {

    interface Listener {
        void onOpen(Conn c);

        void onText(Conn c, String text);

        /** The connection ended: a close frame (its code), end of stream or an error (-1). */
        void onClosed(Conn c, int code);
    }

    static final class Conn {
        final SocketChannel channel;
        final Listener listener;
        ByteBuffer in = ByteBuffer.allocate(1024);
        ByteBuffer out;
        boolean upgraded;
        boolean closed;
        java.io.ByteArrayOutputStream fragments;

        Conn(SocketChannel channel, Listener listener) {
            this.channel = channel;
            this.listener = listener;
        }
    }

    private record Timer(long at, long order, Runnable task) {
    }

    private final Selector selector;
    private final InetSocketAddress address;
    private final byte[] upgrade;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> a.at != b.at
            ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private final AtomicLong timerOrder = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;

    LeanWebSockets(String host, int port, String path) throws IOException {
        selector = Selector.open();
        address = new InetSocketAddress(host, port);
        upgrade = ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        thread = new Thread(this::loop, "lean-websockets");
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code task} on the selector thread. */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** Runs {@code task} on the selector thread at {@code atNanos} ({@link System#nanoTime()}). Selector thread only. */
    void schedule(long atNanos, Runnable task) {
        timers.add(new Timer(atNanos, timerOrder.incrementAndGet(), task));
    }

    /** Opens a connection; {@link Listener#onOpen} follows the upgrade. Selector thread only. */
    Conn connect(Listener listener) {
        return connect(listener, address);
    }

    /**
     * Opens a connection to another server address than the one this client was made for (the
     * upgrade request is the same: a server behind a load balancer and one of its nodes answer it
     * alike). Selector thread only.
     */
    Conn connect(Listener listener, InetSocketAddress to) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            bindSource(ch);
            Conn c = new Conn(ch, listener);
            if (ch.connect(to)) {
                ch.register(selector, SelectionKey.OP_READ, c);
                write(c, ByteBuffer.wrap(upgrade));
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, c);
            }
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next source (address, port) for a connection to a loopback server ({@link #bindSource}). */
    private int nextSource;
    private static final int FIRST_SOURCE_PORT = 10_000;
    private static final int SOURCE_PORTS = 22_000;

    /**
     * To a server on loopback, each connection gets its own source (127.0.0.x, port), below the
     * ephemeral range, in turn. Left to the kernel, every connection came from 127.0.0.1 and a port
     * its connect had to search for among the ones in use or in TIME_WAIT: at 19,000 connections that
     * search was three quarters of the load generator's CPU, and 5 times its cost per login at 12,000
     * (real devices come from many addresses). A pair another socket holds is skipped.
     */
    private void bindSource(SocketChannel ch) throws IOException {
        if (!address.getAddress().isLoopbackAddress()) {
            return;
        }
        ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        for (int attempt = 0; ; attempt++) {
            int k = nextSource++;
            byte[] ip = {127, 0, (byte) (k / SOURCE_PORTS / 250 % 250), (byte) (2 + k / SOURCE_PORTS % 250)};
            try {
                ch.bind(new InetSocketAddress(java.net.InetAddress.getByAddress(ip), FIRST_SOURCE_PORT + k % SOURCE_PORTS));
                return;
            } catch (java.net.BindException e) {
                if (attempt == 100) {
                    throw e;
                }
            }
        }
    }

    /** Sends one text frame. Selector thread only. */
    void send(Conn c, String text) {
        if (c.closed) {
            return;
        }
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        int header = payload.length < 126 ? 6 : 8;
        ByteBuffer frame = ByteBuffer.allocate(header + payload.length);
        frame.put((byte) 0x81);
        if (payload.length < 126) {
            frame.put((byte) (0x80 | payload.length));
        } else {
            frame.put((byte) (0x80 | 126)).putShort((short) payload.length);
        }
        frame.putInt(0).put(payload).flip(); // zero masking key
        write(c, frame);
    }

    /** Sends a normal close frame and closes the socket. Selector thread only. */
    void close(Conn c) {
        if (!c.closed) {
            write(c, ByteBuffer.wrap(new byte[] {(byte) 0x88, (byte) 0x82, 0, 0, 0, 0, 0x03, (byte) 0xE8}));
            end(c, 1000);
        }
    }

    /**
     * Drops the connection the way a lost network does: no close frame, and a reset instead of an
     * orderly FIN (SO_LINGER 0). {@link Listener#onClosed} follows with -1. Selector thread only.
     */
    void abort(Conn c) {
        if (!c.closed) {
            try {
                c.channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException ignored) {
                // closed anyway below
            }
            end(c, -1);
        }
    }

    private void loop() {
        try {
            while (running) {
                Timer next = timers.peek();
                long waitMs = next == null ? 0 : Math.max(1, (next.at - System.nanoTime()) / 1_000_000);
                selector.select(waitMs);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    Conn c = (Conn) key.attachment();
                    try {
                        if (!key.isValid()) {
                            continue;
                        }
                        if (key.isConnectable()) {
                            c.channel.finishConnect();
                            key.interestOps(SelectionKey.OP_READ);
                            write(c, ByteBuffer.wrap(upgrade));
                        } else {
                            if (key.isWritable()) {
                                flush(c, key);
                            }
                            if (key.isValid() && key.isReadable()) {
                                read(c);
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        end(c, -1);
                    }
                }
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                long now = System.nanoTime();
                while (!timers.isEmpty() && timers.peek().at <= now) {
                    timers.poll().task.run();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void read(Conn c) throws IOException {
        if (!c.in.hasRemaining()) {
            c.in = ByteBuffer.allocate(c.in.capacity() * 2).put(c.in.flip());
        }
        int n = c.channel.read(c.in);
        if (n < 0) {
            end(c, -1);
            return;
        }
        c.in.flip();
        if (!c.upgraded) {
            int headEnd = headerEnd(c.in);
            if (headEnd < 0) {
                c.in.compact();
                return;
            }
            String status = new String(c.in.array(), 0, Math.min(12, headEnd), StandardCharsets.US_ASCII);
            if (!status.startsWith("HTTP/1.1 101")) {
                end(c, -1);
                return;
            }
            c.in.position(headEnd);
            c.upgraded = true;
            c.listener.onOpen(c);
        }
        while (!c.closed && frame(c)) {
            // one complete frame handled per turn
        }
        if (!c.closed) {
            c.in.compact();
        }
    }

    /** Handles one complete frame at the buffer's position; false if it has not fully arrived. */
    private boolean frame(Conn c) {
        ByteBuffer b = c.in;
        if (b.remaining() < 2) {
            return false;
        }
        int start = b.position();
        int b0 = b.get(start) & 0xFF;
        int b1 = b.get(start + 1) & 0xFF;
        int header = 2;
        long length = b1 & 0x7F;
        if (length == 126) {
            if (b.remaining() < 4) {
                return false;
            }
            length = b.getShort(start + 2) & 0xFFFF;
            header = 4;
        } else if (length == 127) {
            if (b.remaining() < 10) {
                return false;
            }
            length = b.getLong(start + 2);
            header = 10;
        }
        boolean masked = (b1 & 0x80) != 0;
        int total = header + (masked ? 4 : 0) + (int) length;
        if (b.remaining() < total) {
            if (total > b.capacity()) { // grow so the frame fits; read() compacts into it
                ByteBuffer bigger = ByteBuffer.allocate(total * 2);
                bigger.put(b);
                bigger.flip();
                c.in = bigger;
            }
            return false;
        }
        byte[] payload = new byte[(int) length];
        int at = start + header + (masked ? 4 : 0);
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (b.get(at + i) ^ (masked ? b.get(start + header + (i & 3)) : 0));
        }
        b.position(start + total);
        int opcode = b0 & 0x0F;
        boolean fin = (b0 & 0x80) != 0;
        switch (opcode) {
            case 0x1, 0x0 -> {
                if (!fin || c.fragments != null) {
                    if (c.fragments == null) {
                        c.fragments = new java.io.ByteArrayOutputStream();
                    }
                    c.fragments.writeBytes(payload);
                    if (!fin) {
                        return true;
                    }
                    payload = c.fragments.toByteArray();
                    c.fragments = null;
                }
                c.listener.onText(c, new String(payload, StandardCharsets.UTF_8));
            }
            case 0x8 -> end(c, payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005);
            case 0x9 -> { // ping → pong with the same payload
                ByteBuffer pong = ByteBuffer.allocate(6 + payload.length);
                pong.put((byte) 0x8A).put((byte) (0x80 | payload.length)).putInt(0).put(payload).flip();
                write(c, pong);
            }
            default -> {
                // pong or binary: nothing to do for a device
            }
        }
        return true;
    }

    private static int headerEnd(ByteBuffer b) {
        for (int i = b.position(); i + 3 < b.limit(); i++) {
            if (b.get(i) == '\r' && b.get(i + 1) == '\n' && b.get(i + 2) == '\r' && b.get(i + 3) == '\n') {
                return i + 4;
            }
        }
        return -1;
    }

    private void write(Conn c, ByteBuffer data) {
        if (c.closed) {
            return;
        }
        try {
            if (c.out == null) {
                c.channel.write(data);
                if (data.hasRemaining()) {
                    c.out = ByteBuffer.allocate(Math.max(4096, data.remaining() * 2)).put(data);
                    c.channel.keyFor(selector).interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            } else {
                if (c.out.remaining() < data.remaining()) {
                    c.out = ByteBuffer.allocate((c.out.position() + data.remaining()) * 2).put(c.out.flip());
                }
                c.out.put(data);
            }
        } catch (IOException e) {
            end(c, -1);
        }
    }

    private void flush(Conn c, SelectionKey key) throws IOException {
        c.out.flip();
        c.channel.write(c.out);
        if (c.out.hasRemaining()) {
            c.out.compact();
        } else {
            c.out = null;
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    private void end(Conn c, int code) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        try {
            c.channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        c.listener.onClosed(c, code);
    }

    @Override
    public void close() throws IOException {
        running = false;
        selector.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        selector.close();
    }
}
