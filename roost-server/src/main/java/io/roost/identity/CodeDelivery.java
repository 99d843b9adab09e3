package io.roost.identity;

import io.roost.platform.config.NodeIdentity;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.Authenticator;
import jakarta.mail.MessagingException;
import jakarta.mail.PasswordAuthentication;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends verification codes: e-mail through SMTP (Jakarta Mail), SMS as a {@code roost-sms} event
 * for an SMS gateway (through the outbox, so it leaves only if the code was stored). With neither
 * configured, dev mode logs the code and other modes refuse.
 */
@ApplicationScoped
public class CodeDelivery {

    public static final String SMS_TOPIC = "roost-sms";
    private static final Logger LOG = Logger.getLogger(CodeDelivery.class.getName());

    @Inject
    IdentitySettings settings;

    @Inject
    NodeIdentity node;

    @Inject
    OutboxPublisher outbox;

    private Session mail;

    @PostConstruct
    void init() {
        settings.smtpHost().ifPresent(host -> {
            Properties p = new Properties();
            p.put("mail.smtp.host", host);
            p.put("mail.smtp.port", Integer.toString(settings.smtpPort()));
            p.put("mail.smtp.starttls.enable", Boolean.toString(settings.smtpStartTls()));
            p.put("mail.smtp.connectiontimeout", "5000");
            p.put("mail.smtp.timeout", "10000");
            p.put("mail.smtp.writetimeout", "10000");
            Authenticator auth = null;
            if (settings.smtpUser().isPresent()) {
                p.put("mail.smtp.auth", "true");
                String user = settings.smtpUser().get();
                String password = settings.smtpPassword().orElse("");
                auth = new Authenticator() {
                    @Override
                    protected PasswordAuthentication getPasswordAuthentication() {
                        return new PasswordAuthentication(user, password);
                    }
                };
            }
            mail = Session.getInstance(p, auth);
        });
    }

    /** 503 before anything is stored when this kind of address cannot get a code here. */
    public void checkAvailable(ContactAddress.Kind kind) {
        boolean configured = kind == ContactAddress.Kind.EMAIL ? mail != null : settings.smsEnabled();
        if (!configured && !node.devMode()) {
            throw ProblemException.unavailable("code-delivery-unavailable", kind == ContactAddress.Kind.EMAIL
                    ? "This server sends no e-mail (ROOST_SMTP_HOST is not set); use another way to register."
                    : "This server sends no SMS (ROOST_SMS_ENABLED is not set); use another way to register.");
        }
    }

    /**
     * Called inside the transaction that stores the code: a failed send rolls the code back, so the
     * caller may ask again at once; an SMS leaves only when that transaction commits.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void deliver(ContactAddress to, String code, VerificationCodes.Purpose purpose, OffsetDateTime expiresAt) {
        checkAvailable(to.kind());
        if (to.kind() == ContactAddress.Kind.EMAIL && mail != null) {
            sendMail(to.value(), code, purpose, expiresAt);
        } else if (to.kind() == ContactAddress.Kind.PHONE && settings.smsEnabled()) {
            outbox.publish(SMS_TOPIC, purpose.wire(), to.value(), Jsonp.PROVIDER.createObjectBuilder()
                    .add("phone", to.value()).add("code", code).add("purpose", purpose.wire())
                    .add("expiresAt", expiresAt.toInstant().toString()).build().toString());
        } else {
            java.nio.file.Path file = DevSecrets.append("verification-codes", OffsetDateTime.now() + " " + purpose.wire() + " "
                    + to.value() + " " + code);
            LOG.warning(() -> "Dev mode, no " + to.kind() + " delivery configured: the " + purpose.wire() + " code is in " + file);
        }
    }

    private void sendMail(String to, String code, VerificationCodes.Purpose purpose, OffsetDateTime expiresAt) {
        try {
            MimeMessage message = new MimeMessage(mail);
            message.setFrom(new InternetAddress(settings.smtpFrom()));
            message.setRecipient(MimeMessage.RecipientType.TO, new InternetAddress(to));
            message.setSubject("Your Roost code: " + code, "UTF-8");
            message.setText("Your Roost " + purpose.description() + " code is " + code + ".\n\n"
                    + "It expires at " + expiresAt.toInstant() + ". If you did not ask for it, ignore this message.\n",
                    "UTF-8");
            Transport.send(message);
        } catch (MessagingException e) {
            LOG.log(Level.WARNING, "Could not send a code to " + to + ": " + e.getMessage());
            throw new ProblemException(502, "code-delivery-failed", "Bad gateway",
                    "The code could not be sent to " + to + "; try again later.");
        }
    }
}
