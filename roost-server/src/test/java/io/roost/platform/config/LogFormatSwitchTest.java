package io.roost.platform.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.RepoFiles;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The log format switch in roost.cli: ROOST_LOG_FORMAT picks the handlers' levels through a nested
 * expression (a handler's formatter cannot be one). Resolved here as WildFly resolves it (the
 * innermost {@code ${…}} first, {@code :default} when the key has no value), for each value.
 */
class LogFormatSwitchTest {

    static final String CLI = readCli();
    static final Pattern EXPRESSION = Pattern.compile("\\$\\{([^${}]+)}");

    static String readCli() {
        try {
            return Files.readString(RepoFiles.of("roost-server", "wildfly-config", "roost.cli"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The CLI's system properties, and the environment. */
    static String resolve(String value, Map<String, String> env) {
        Map<String, String> properties = new HashMap<>();
        Matcher p = Pattern.compile("/system-property=([^:]+):add\\(value=\"?([^\")]*)\"?\\)").matcher(CLI);
        while (p.find()) {
            properties.put(p.group(1), p.group(2));
        }
        String v = value;
        for (Matcher m = EXPRESSION.matcher(v); m.find(); m = EXPRESSION.matcher(v)) {
            String[] keyAndDefault = m.group(1).split(":", 2);
            String key = keyAndDefault[0];
            String found = key.startsWith("env.") ? env.get(key.substring(4)) : properties.get(key);
            String resolved = found != null ? found : keyAndDefault.length > 1 ? keyAndDefault[1] : null;
            assertTrue(resolved != null, "unresolvable " + m.group());
            v = v.substring(0, m.start()) + resolved + v.substring(m.end());
        }
        return v;
    }

    /** The level a handler's write-attribute or add gives it, as written. */
    static String level(String handler) {
        Matcher plain = Pattern.compile("=" + Pattern.quote(handler) + ":[^\\n]*?(?:name=level, value=|level=)\"([^\"]+)\"").matcher(CLI);
        assertTrue(plain.find(), "a level for " + handler);
        return plain.group(1);
    }

    Map<String, String> levels(Map<String, String> env) {
        Map<String, String> levels = new HashMap<>();
        for (String handler : List.of("CONSOLE", "FILE", "JSON-CONSOLE", "JSON-FILE")) {
            levels.put(handler, resolve(level(handler), env));
        }
        return levels;
    }

    @Test
    void textByDefaultAndForAnyValueButJson() {
        Map<String, String> text = Map.of("CONSOLE", "INFO", "FILE", "ALL", "JSON-CONSOLE", "OFF", "JSON-FILE", "OFF");
        assertEquals(text, levels(Map.of()));
        assertEquals(text, levels(Map.of("ROOST_LOG_FORMAT", "text")));
        assertEquals(text, levels(Map.of("ROOST_LOG_FORMAT", "JSON")), "the value is case-sensitive; LogFormat warns of it");
    }

    @Test
    void jsonTurnsTheTextHandlersOffAndTheJsonOnesOn() {
        assertEquals(Map.of("CONSOLE", "OFF", "FILE", "OFF", "JSON-CONSOLE", "ALL", "JSON-FILE", "ALL"),
                levels(Map.of("ROOST_LOG_FORMAT", "json")));
    }

    @Test
    void theJsonHandlersUseWildFlysJsonFormatterWithTheNodeIdAndBothFormatsTheRequestId() {
        assertTrue(CLI.contains("/subsystem=logging/json-formatter=JSON:add("), "WildFly's json-formatter");
        for (String handler : List.of("JSON-CONSOLE", "JSON-FILE")) {
            assertTrue(CLI.contains("=" + handler + ":add(named-formatter=JSON,"), handler);
            assertTrue(CLI.contains("/subsystem=logging/root-logger=ROOT:add-handler(name=" + handler + ")"), handler + " on the root logger");
        }
        Matcher meta = Pattern.compile("meta-data=\\{node=\"([^\"]+)\"}").matcher(CLI);
        assertTrue(meta.find(), "the node id in every JSON line");
        assertEquals("7", resolve(meta.group(1), Map.of("ROOST_NODE_ID", "7")));
        Matcher patterns = Pattern.compile("pattern-formatter=(?:COLOR-)?PATTERN:write-attribute\\(name=pattern, value=\"([^\"]+)\"").matcher(CLI);
        int count = 0;
        while (patterns.find()) {
            count++;
            String pattern = resolve(patterns.group(1), Map.of("ROOST_NODE_ID", "7"));
            assertTrue(pattern.contains("[7 %X{requestId}]"), pattern);
        }
        assertEquals(2, count, "both text patterns");
    }
}
