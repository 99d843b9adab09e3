package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The mail the server sends codes by: GreenMail's SMTP server in the test JVM, on the port the
 * server sends to (ROOST_SMTP_PORT, roost.test.smtp.port in pom.xml), for one test class:
 * {@code @RegisterExtension static final Mailbox mail = new Mailbox();}. The server sends a code
 * inside the request that asks for it, so a mail that is coming has come by the time the answer has.
 */
public final class Mailbox implements BeforeAllCallback, AfterAllCallback {

    /** The lock of the one SMTP port: the classes with a mailbox take it, so that they never run side by side. */
    public static final String SMTP_PORT = "roost.test.smtp.port";

    private static final Pattern CODE = Pattern.compile("code: ([0-9]{5})");

    private final int port = Integer.getInteger("roost.test.smtp.port", 13025);
    private GreenMail smtp;

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (smtp != null) {
            smtp.stop();
        }
    }

    private void start() {
        smtp = new GreenMail(new ServerSetup(port, "127.0.0.1", "smtp"));
        smtp.start();
    }

    /** Every mail received so far. */
    public List<MimeMessage> received() {
        return List.of(smtp.getReceivedMessages());
    }

    /** The mails received so far addressed to {@code address}, oldest first. */
    public List<MimeMessage> to(String address) throws MessagingException {
        List<MimeMessage> to = new ArrayList<>();
        for (MimeMessage m : smtp.getReceivedMessages()) {
            if (m.getRecipients(Message.RecipientType.TO)[0].toString().equals(address)) {
                to.add(m);
            }
        }
        return to;
    }

    /** The code in the {@code nth} mail to {@code address} (1 is the first), waiting up to 20 s for it; every mail there carries one. */
    public String code(String address, int nth) throws Exception {
        Wait.until("mail #" + nth + " to " + address, Duration.ofSeconds(20), () -> to(address).size() >= nth);
        List<String> codes = new ArrayList<>();
        for (MimeMessage m : to(address)) {
            Matcher matcher = CODE.matcher(m.getSubject());
            assertTrue(matcher.find(), m.getSubject());
            codes.add(matcher.group(1));
        }
        return codes.get(nth - 1);
    }

    /**
     * Runs {@code call} while an SMTP server that refuses every recipient (550) stands in for
     * GreenMail on the port. GreenMail starts again afterwards, empty: the mails received before are gone.
     */
    public <T> T refusingEveryRecipient(Callable<T> call) throws Exception {
        smtp.stop();
        try (RefusingSmtp refusing = new RefusingSmtp(port)) {
            return call.call();
        } finally {
            start();
        }
    }

    /** Speaks just enough SMTP to refuse each recipient, one connection at a time. */
    private static final class RefusingSmtp implements AutoCloseable {

        private final ServerSocket socket;

        RefusingSmtp(int port) throws IOException {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            Thread serving = new Thread(this::serve, "refusing-smtp");
            serving.setDaemon(true);
            serving.start();
        }

        private void serve() {
            while (!socket.isClosed()) {
                try (Socket s = socket.accept();
                     BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                     Writer out = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.US_ASCII)) {
                    reply(out, "220 refusing.test ESMTP");
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        String verb = line.length() < 4 ? line : line.substring(0, 4).toUpperCase(Locale.ROOT);
                        if (verb.equals("QUIT")) {
                            reply(out, "221 bye");
                            break;
                        }
                        reply(out, verb.equals("RCPT") ? "550 5.7.1 this server refuses every recipient" : "250 OK");
                    }
                } catch (IOException closedOrDropped) {
                    // the socket was closed (the stand-in is done), or the client went away: next one
                }
            }
        }

        private static void reply(Writer out, String line) throws IOException {
            out.write(line + "\r\n");
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
