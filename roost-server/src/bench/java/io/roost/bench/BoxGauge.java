package io.roost.bench;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * How fast this box is today, in a few seconds and on its own: what a message's path pays for most
 * (a loopback TCP round trip, a hand-off between two threads, each a wake-up of a sleeping thread
 * through the kernel) next to plain computing (SHA-256 of 8 KB blocks). The machine is shared, and
 * on some days its kernel crossings cost a few times what they usually do while its computing does
 * not; every figure of the chat benchmark moves with the first two, so the benchmark prints them.
 * Each figure is the median of five rounds after a warm-up round.
 * <pre>java -cp target/test-classes io.roost.bench.BoxGauge</pre>
 */
public final class BoxGauge {

    static final int ROUNDS = 5;
    static final int ROUND_TRIPS = 5_000;
    static final int HASH_BLOCKS = 20_000;

    public static void main(String[] args) throws Exception {
        double tcp = median(BoxGauge::tcpRoundTripMicros);
        double handOff = median(BoxGauge::handOffMicros);
        double sha = median(BoxGauge::sha256MegabytesPerSecond);
        System.out.printf("GAUGE tcp_round_trip_us=%.1f hand_off_us=%.1f sha256_mb_per_s=%.0f%n", tcp, handOff, sha);
    }

    interface Round {
        double run() throws Exception;
    }

    static double median(Round r) throws Exception {
        r.run(); // warm-up: compiled and connected by the rounds that count
        double[] v = new double[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            v[i] = r.run();
        }
        Arrays.sort(v);
        return v[ROUNDS / 2];
    }

    /** One byte to an echoing thread and back over loopback TCP, Nagle off: as a frame and its answer. */
    static double tcpRoundTripMicros() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
             Socket echo = server.accept()) {
            client.setTcpNoDelay(true);
            echo.setTcpNoDelay(true);
            Thread echoer = new Thread(() -> {
                try (InputStream in = echo.getInputStream(); OutputStream out = echo.getOutputStream()) {
                    for (int b; (b = in.read()) >= 0; ) {
                        out.write(b);
                    }
                } catch (Exception closed) {
                    // the round is over
                }
            });
            echoer.start();
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            long start = System.nanoTime();
            for (int i = 0; i < ROUND_TRIPS; i++) {
                out.write(i & 0x7f);
                if (in.read() != (i & 0x7f)) {
                    throw new IllegalStateException("the echo answered another byte");
                }
            }
            long took = System.nanoTime() - start;
            client.shutdownOutput();
            echoer.join();
            return took / 1_000.0 / ROUND_TRIPS;
        }
    }

    /** A token to a thread parked on a queue and back (no spinning): two wake-ups, as a queued task and its answer. */
    static double handOffMicros() throws Exception {
        BlockingQueue<Integer> there = new ArrayBlockingQueue<>(1);
        BlockingQueue<Integer> back = new ArrayBlockingQueue<>(1);
        Thread other = new Thread(() -> {
            try {
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    back.put(there.take());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        other.start();
        long start = System.nanoTime();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            there.put(i);
            if (back.take() != i) {
                throw new IllegalStateException("the other thread answered another token");
            }
        }
        long took = System.nanoTime() - start;
        other.join();
        return took / 1_000.0 / ROUND_TRIPS;
    }

    /** Computing alone: no system call, no wake-up. */
    static double sha256MegabytesPerSecond() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[8192];
        Arrays.fill(block, (byte) 7);
        long start = System.nanoTime();
        for (int i = 0; i < HASH_BLOCKS; i++) {
            sha.update(block);
        }
        if (sha.digest().length != 32) {
            throw new IllegalStateException("not a SHA-256 digest");
        }
        return (double) HASH_BLOCKS * block.length / (System.nanoTime() - start) * 1_000;
    }
}
