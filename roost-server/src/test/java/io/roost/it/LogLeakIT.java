package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * No token, password or message body the suite used is in the server's log, at any level (the suite
 * runs {@code io.roost} at DEBUG). Last of its execution, alone ({@link Isolated} classes run after
 * the concurrent ones; {@link ClassOrderer.OrderAnnotation} puts this one after the other isolated
 * ones), so every class before it has recorded what it sent ({@link LogSecrets}) and the server
 * has logged what it logs.
 */
@Isolated("reads the log after every other class")
@Order(Integer.MAX_VALUE)
class LogLeakIT {

    @Test
    void theServerLogHoldsNoTokenPasswordOrMessageBodyTheSuiteSent() throws Exception {
        Set<String> secrets = LogSecrets.recorded();
        assertTrue(secrets.size() > 2, "the classes before this one recorded tokens and bodies: " + secrets.size());
        String log = ServerLog.read();
        assertTrue(log.contains("WFLYSRV0025"), "the log of a started server: " + ServerLog.PATH);
        List<String> leaked = new LogLeaks(secrets).in(log);
        List<String> where = leaked.stream().map(s -> s + " in: " + log.lines().filter(l -> l.contains(s)).findFirst().orElse("")).toList();
        assertEquals(List.of(), where, "of " + secrets.size() + " secrets in " + log.length() + " characters of " + ServerLog.PATH);
    }
}
