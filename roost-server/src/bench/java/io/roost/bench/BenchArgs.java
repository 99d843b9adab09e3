package io.roost.bench;

import java.util.HashMap;
import java.util.Map;

/** The benchmarks' {@code --key=value} arguments. */
final class BenchArgs {

    private BenchArgs() {
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("arguments are --key=value, not '" + a + "'");
            }
            options.put(a.substring(2, eq), a.substring(eq + 1));
        }
        return options;
    }
}
