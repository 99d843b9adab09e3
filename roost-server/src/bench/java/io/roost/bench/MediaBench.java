package io.roost.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.imageio.ImageIO;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Media on Roost, for bench/media.sh: a realistic mix (many ~200 KB JPEG photos, some 5 MB
 * documents, a few 50 MB videos; sizes times {@code --scale}) uploaded concurrently over REST, each
 * sent in a one-to-one message, then downloaded concurrently by the recipient (every file
 * {@code --rounds} times, each streamed into a SHA-256). The same files, written to {@code --dir},
 * are downloaded the same way from nginx ({@code --nginx-url}, the baseline on the same box), and,
 * with {@code --s3-endpoint}, put into the bucket and fetched straight from it (the bucket server's
 * own speed). Outcome: every download's SHA-256 is the upload's (an image's is the clean copy's
 * that Roost stored), and a stranger's downloads are all refused (404).
 *
 * <p>Prints {@code PHASE name from to} (epoch ms) and {@code RESULT ...} lines for the script.
 */
public final class MediaBench {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** A file of the mix: its name, bytes on disk, its SHA-256, and Roost's id and served SHA-256 once uploaded. */
    record Item(String name, String kind, Path path, long size, String sha256) {
    }

    record Stored(Item item, String id, String servedSha256) {
    }

    /** What a download phase measured. */
    record Downloads(long bytes, long nanos, ChatStats.Latencies ttfb, long bad) {
        double mbPerS() {
            return bytes / 1e6 / (nanos / 1e9);
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        String url = o.getOrDefault("url", "http://127.0.0.1:8080");
        String nginx = o.get("nginx-url");
        Path dir = Path.of(o.getOrDefault("dir", "target/bench-media/files"));
        double scale = Double.parseDouble(o.getOrDefault("scale", "1"));
        int images = Integer.parseInt(o.getOrDefault("images", "200"));
        int docs = Integer.parseInt(o.getOrDefault("docs", "10"));
        int videos = Integer.parseInt(o.getOrDefault("videos", "2"));
        int upThreads = Integer.parseInt(o.getOrDefault("up-threads", "8"));
        int downThreads = Integer.parseInt(o.getOrDefault("down-threads", "16"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        long seed = Long.parseLong(o.getOrDefault("seed", Long.toString(System.nanoTime() % 1_000_000_007L)));
        String label = o.getOrDefault("store", "db"); // db, s3, or s3-redirect (the bucket serves the downloads)
        System.out.printf("SIZES store=%s images=%d docs=%d videos=%d scale=%s rounds=%d up-threads=%d down-threads=%d seed=%d%n", label,
                images, docs, videos, scale, rounds, upThreads, downThreads, seed);

        List<Item> items = files(dir, images, docs, videos, scale, seed);
        long total = items.stream().mapToLong(Item::size).sum();
        System.out.printf("files: %d, %.1f MB in %s%n", items.size(), total / 1e6, dir);

        String[] a = register(url, "mb-a");
        String[] b = register(url, "mb-b");
        String[] stranger = register(url, "mb-s");

        // uploads, concurrently; the 50 MB ones are what the heap sampler watches
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(upThreads, downThreads));
        List<Item> order = new ArrayList<>(items);
        Collections.shuffle(order, new Random(seed));
        long upFrom = System.currentTimeMillis();
        System.out.println("PHASE_START upload " + upFrom);
        long t0 = System.nanoTime();
        List<Future<Stored>> uploads = new ArrayList<>();
        for (Item it : order) {
            uploads.add(pool.submit(() -> upload(url, a[1], it)));
        }
        List<Stored> stored = new ArrayList<>();
        for (Future<Stored> f : uploads) {
            stored.add(f.get());
        }
        long upNanos = System.nanoTime() - t0;
        System.out.println("PHASE_END upload " + System.currentTimeMillis());
        System.out.printf("RESULT phase=upload store=%s files=%d mb=%.1f seconds=%.2f mb_per_s=%.1f%n", label, stored.size(), total / 1e6,
                upNanos / 1e9, total / 1e6 / (upNanos / 1e9));

        // one more 50 MB file, uploaded alone: what one large upload does to the node's heap
        Item solo = write(dir, "solo.mp4", "video", bytes(new Random(seed + 7), (int) (50_000_000 * scale),
                new byte[] {0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'm', 'p', '4', '2', 0, 0, 0, 0, 'm', 'p', '4', '2', 'i', 's', 'o', 'm'}));
        Thread.sleep(2000); // a heap sample or two before it
        System.out.println("PHASE_START upload-one " + System.currentTimeMillis());
        long s0 = System.nanoTime();
        upload(url, a[1], solo);
        System.out.println("PHASE_END upload-one " + System.currentTimeMillis());
        System.out.printf("RESULT phase=upload-one store=%s mb=%.1f seconds=%.2f%n", label, solo.size() / 1e6, (System.nanoTime() - s0) / 1e9);

        // one message per file: the recipient may then download it
        for (Stored s : stored) {
            String type = s.item().kind();
            post(url + "/api/v1/chat/messages", a[1], "application/json", "{\"peer\":\"" + b[0] + "\",\"sendId\":\"mb-" + s.id()
                    + "\",\"type\":\"" + type + "\",\"media\":{\"id\":\"" + s.id() + "\"}}", 201);
        }

        // downloads from Roost, the recipient's
        List<String[]> roostTargets = new ArrayList<>();
        for (Stored s : stored) {
            roostTargets.add(new String[] {url + "/api/v1/media/" + s.id() + "/content", s.servedSha256()});
        }
        Downloads roost = download("roost", label, roostTargets, rounds, "Bearer " + b[1], pool, downThreads, seed);
        // a stranger gets nothing
        long refused = 0;
        long sample = Math.min(50, stored.size());
        for (int i = 0; i < sample; i++) {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/media/" + stored.get(i).id() + "/content"))
                    .header("Authorization", "Bearer " + stranger[1]).build(), HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() == 404) {
                refused++;
            }
        }
        System.out.printf("RESULT phase=forbidden store=%s tried=%d refused_404=%d%n", label, sample, refused);

        // the same files from nginx (the images as uploaded: Roost serves its clean copies, so bytes differ a little)
        Downloads baseline = null;
        if (nginx != null) {
            List<String[]> nginxTargets = new ArrayList<>();
            for (Item it : items) {
                nginxTargets.add(new String[] {nginx + "/" + it.name(), it.sha256()});
            }
            baseline = download("nginx", label, nginxTargets, rounds, null, pool, downThreads, seed);
        }
        // and straight from the bucket
        Downloads bucket = null;
        if (o.containsKey("s3-endpoint")) {
            bucket = bucketDownloads(o, items, rounds, pool, downThreads, seed, label);
        }
        pool.shutdown();

        long bad = roost.bad() + (baseline == null ? 0 : baseline.bad()) + (bucket == null ? 0 : bucket.bad());
        boolean ok = bad == 0 && refused == sample;
        System.out.printf("RESULT phase=outcome store=%s bad_downloads=%d forbidden_refused=%d/%d outcome=%s%n", label, bad, refused, sample,
                ok ? "PASS" : "FAIL");
        System.exit(0);
    }

    /** The mix, deterministic by seed; written once per seed and size into {@code dir}. */
    static List<Item> files(Path dir, int images, int docs, int videos, double scale, long seed) throws Exception {
        Files.createDirectories(dir);
        Random rnd = new Random(seed);
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < images; i++) {
            items.add(write(dir, "img-" + i + ".jpg", "image", photo(rnd, scale)));
        }
        for (int i = 0; i < docs; i++) {
            items.add(write(dir, "doc-" + i + ".pdf", "file", bytes(rnd, (int) (5_000_000 * scale), "%PDF-1.4\n".getBytes())));
        }
        for (int i = 0; i < videos; i++) {
            // an ISO base media header (ftyp mp42): the type is found from it; the rest is the payload
            byte[] ftyp = {0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'm', 'p', '4', '2', 0, 0, 0, 0, 'm', 'p', '4', '2', 'i', 's', 'o', 'm'};
            items.add(write(dir, "video-" + i + ".mp4", "video", bytes(rnd, (int) (50_000_000 * scale), ftyp)));
        }
        return items;
    }

    /** A ~200 KB JPEG (scaled): a noisy gradient, so that it compresses like a photo rather than like a flat colour. */
    static byte[] photo(Random rnd, double scale) throws IOException {
        int side = (int) Math.max(64, 420 * Math.sqrt(scale));
        BufferedImage img = new BufferedImage(side, side, BufferedImage.TYPE_INT_RGB);
        int base = rnd.nextInt(0xFFFFFF);
        for (int y = 0; y < side; y++) {
            for (int x = 0; x < side; x++) {
                int noise = rnd.nextInt(96);
                img.setRGB(x, y, (base + (x * 255 / side << 16) + (y * 255 / side << 8) + noise) & 0xFFFFFF);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(img, "jpeg", out);
        return out.toByteArray();
    }

    static byte[] bytes(Random rnd, int n, byte[] head) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        System.arraycopy(head, 0, b, 0, Math.min(head.length, n));
        return b;
    }

    static Item write(Path dir, String name, String kind, byte[] bytes) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return new Item(name, kind, p, bytes.length, hex(MessageDigest.getInstance("SHA-256").digest(bytes)));
    }

    static Stored upload(String url, String token, Item it) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url + "/api/v1/media?name=" + it.name())).timeout(Duration.ofMinutes(5))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofFile(it.path())).build();
        HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            throw new IllegalStateException("upload of " + it.name() + ": " + r.statusCode() + " " + r.body());
        }
        JsonObject f = Json.createReader(new StringReader(r.body())).readObject();
        return new Stored(it, f.getString("id"), f.getString("sha256"));
    }

    /** Every target {@code rounds} times, in a shuffled order, on {@code threads} at once, each streamed into a digest. */
    static Downloads download(String source, String label, List<String[]> targets, int rounds, String auth, ExecutorService pool,
                              int threads, long seed) throws Exception {
        List<String[]> work = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            work.addAll(targets);
        }
        Collections.shuffle(work, new Random(seed + 1));
        AtomicLong bytes = new AtomicLong();
        AtomicLong bad = new AtomicLong();
        AtomicLong redirects = new AtomicLong();
        ChatStats.Latencies ttfb = new ChatStats.Latencies();
        AtomicLong next = new AtomicLong();
        long from = System.currentTimeMillis();
        System.out.println("PHASE_START download-" + source + " " + from);
        long t0 = System.nanoTime();
        List<Future<?>> runs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            runs.add(pool.submit(() -> {
                for (long k; (k = next.getAndIncrement()) < work.size(); ) {
                    String[] target = work.get((int) k);
                    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(target[0])).timeout(Duration.ofMinutes(5));
                    if (auth != null) {
                        b.header("Authorization", auth);
                    }
                    long s = System.nanoTime();
                    HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
                    if (r.statusCode() == 307) { // the bucket serves it: follow without Roost's credentials, as a browser does
                        r.body().close();
                        redirects.incrementAndGet();
                        r = HTTP.send(HttpRequest.newBuilder(URI.create(r.headers().firstValue("Location").orElseThrow()))
                                .timeout(Duration.ofMinutes(5)).build(), HttpResponse.BodyHandlers.ofInputStream());
                    }
                    long first = System.nanoTime() - s; // the headers are in: the first byte
                    synchronized (ttfb) {
                        ttfb.add(first);
                    }
                    if (r.statusCode() != 200) {
                        r.body().close();
                        bad.incrementAndGet();
                        continue;
                    }
                    bytes.addAndGet(drain(r.body(), target[1], bad));
                }
                return null;
            }));
        }
        for (Future<?> f : runs) {
            f.get();
        }
        long nanos = System.nanoTime() - t0;
        System.out.println("PHASE_END download-" + source + " " + System.currentTimeMillis());
        Downloads d = new Downloads(bytes.get(), nanos, ttfb, bad.get());
        System.out.printf("RESULT phase=download source=%s store=%s downloads=%d mb=%.1f seconds=%.2f mb_per_s=%.1f ttfb_p50_ms=%.1f "
                        + "ttfb_p99_ms=%.1f bad=%d redirects=%d%n", source, label, work.size(), d.bytes() / 1e6, nanos / 1e9, d.mbPerS(),
                ttfb.ms(0.5), ttfb.ms(0.99), d.bad(), redirects.get());
        return d;
    }

    /** Reads the body into a SHA-256; counts it as bad if the digest is not {@code sha256}. */
    static long drain(InputStream body, String sha256, AtomicLong bad) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        long n;
        try (DigestInputStream in = new DigestInputStream(body, md)) {
            n = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        if (!hex(md.digest()).equals(sha256)) {
            bad.incrementAndGet();
        }
        return n;
    }

    /** The bucket server's own speed: the same files put under bench/ and fetched straight from it (SigV4, no Roost). */
    static Downloads bucketDownloads(Map<String, String> o, List<Item> items, int rounds, ExecutorService pool, int threads, long seed,
                                     String label) throws Exception {
        String bucket = o.getOrDefault("s3-bucket", "roost-media");
        try (S3Client s3 = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).region(Region.US_EAST_1)
                .endpointOverride(URI.create(o.get("s3-endpoint")))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(o.getOrDefault("s3-access-key", "roost"),
                        o.getOrDefault("s3-secret-key", "roost-dev-secret"))))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build()) {
            for (Item it : items) {
                s3.putObject(r -> r.bucket(bucket).key("bench/" + it.name()), RequestBody.fromFile(it.path()));
            }
            List<Item> work = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                work.addAll(items);
            }
            Collections.shuffle(work, new Random(seed + 1));
            AtomicLong bytes = new AtomicLong();
            AtomicLong bad = new AtomicLong();
            AtomicLong next = new AtomicLong();
            ChatStats.Latencies ttfb = new ChatStats.Latencies();
            System.out.println("PHASE_START download-bucket " + System.currentTimeMillis());
            long t0 = System.nanoTime();
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                runs.add(pool.submit(() -> {
                    for (long k; (k = next.getAndIncrement()) < work.size(); ) {
                        Item it = work.get((int) k);
                        long s = System.nanoTime();
                        try (InputStream in = s3.getObject(r -> r.bucket(bucket).key("bench/" + it.name()))) {
                            long first = System.nanoTime() - s;
                            synchronized (ttfb) {
                                ttfb.add(first);
                            }
                            bytes.addAndGet(drain(in, it.sha256(), bad));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : runs) {
                f.get();
            }
            long nanos = System.nanoTime() - t0;
            System.out.println("PHASE_END download-bucket " + System.currentTimeMillis());
            Downloads d = new Downloads(bytes.get(), nanos, ttfb, bad.get());
            System.out.printf("RESULT phase=download source=bucket store=%s downloads=%d mb=%.1f seconds=%.2f mb_per_s=%.1f ttfb_p50_ms=%.1f "
                            + "ttfb_p99_ms=%.1f bad=%d%n", label, work.size(), d.bytes() / 1e6, nanos / 1e9, d.mbPerS(), ttfb.ms(0.5),
                    ttfb.ms(0.99), d.bad());
            return d;
        }
    }

    static String[] register(String url, String prefix) throws Exception {
        String name = prefix + Long.toHexString(System.nanoTime());
        JsonObject r = Json.createReader(new StringReader(post(url + "/api/v1/registrations", null, "application/json",
                "{\"username\":\"" + name + "\",\"deviceType\":\"android\",\"deviceId\":\"" + name + "\"}", 201))).readObject();
        return new String[] {r.getJsonObject("account").getString("id"), r.getJsonObject("token").getString("token")};
    }

    static String post(String u, String token, String type, String body, int expect) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(u)).timeout(Duration.ofSeconds(60)).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expect) {
            throw new IllegalStateException(u + " -> " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
