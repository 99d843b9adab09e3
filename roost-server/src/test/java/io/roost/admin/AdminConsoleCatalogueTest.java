package io.roost.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The admin console's message catalogues (src/main/webapp/admin/i18n/*.json): every language has the
 * same keys, no empty message, the same {placeholders} in each language; every key the console uses
 * (t('...') in app.js, data-i18n="..." in index.html) is in them, and every key in them is used.
 */
class AdminConsoleCatalogueTest {

    static final Path ADMIN = AdminConsoleCatalogue.ADMIN;
    static final List<String> LANGUAGES = AdminConsoleCatalogue.LANGUAGES;

    static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\w+)}");
    /** A key app.js asks for: t('key' (the only way it asks, see {@link #appJsUsesOnlyLiteralKeys}). */
    static final Pattern T_CALL = Pattern.compile("\\bt\\(\\s*'([^']+)'");
    static final Pattern ANY_T_CALL = Pattern.compile("\\bt\\(\\s*(\\S)");
    /** A key index.html fills in: data-i18n="key" (text) or data-i18n-label="key" (aria-label). */
    static final Pattern DATA_I18N = Pattern.compile("\\bdata-i18n(?:-label)?=\"([^\"]+)\"");

    static Map<String, String> catalogue(String language) {
        return AdminConsoleCatalogue.read(language);
    }

    static Map<String, Map<String, String>> catalogues() {
        Map<String, Map<String, String>> all = new LinkedHashMap<>();
        for (String language : LANGUAGES) all.put(language, catalogue(language));
        return all;
    }

    static Set<String> placeholders(String message) {
        Set<String> names = new TreeSet<>();
        Matcher m = PLACEHOLDER.matcher(message);
        while (m.find()) names.add(m.group(1));
        return names;
    }

    static Set<String> matches(Pattern pattern, String file) throws IOException {
        Set<String> found = new TreeSet<>();
        Matcher m = pattern.matcher(Files.readString(ADMIN.resolve(file)));
        while (m.find()) found.add(m.group(1));
        return found;
    }

    static Set<String> usedKeys() throws IOException {
        Set<String> used = matches(T_CALL, "app.js");
        used.addAll(matches(DATA_I18N, "index.html"));
        return used;
    }

    @Test
    void everyLanguageHasTheSameKeys() throws IOException {
        Map<String, Map<String, String>> all = catalogues();
        Set<String> keys = new TreeSet<>();
        all.values().forEach(c -> keys.addAll(c.keySet()));
        List<String> missing = new ArrayList<>();
        all.forEach((language, c) -> keys.stream().filter(k -> !c.containsKey(k)).forEach(k -> missing.add(language + " lacks " + k)));
        assertEquals(List.of(), missing);
    }

    @Test
    void noMessageIsEmpty() throws IOException {
        List<String> empty = new ArrayList<>();
        catalogues().forEach((language, c) -> c.forEach((k, v) -> {
            if (v.isBlank()) empty.add(language + ": " + k);
        }));
        assertEquals(List.of(), empty);
    }

    @Test
    void everyLanguageHasTheSamePlaceholders() throws IOException {
        Map<String, Map<String, String>> all = catalogues();
        Map<String, String> en = all.get("en");
        List<String> differ = new ArrayList<>();
        all.forEach((language, c) -> c.forEach((k, v) -> {
            if (en.containsKey(k) && !placeholders(v).equals(placeholders(en.get(k)))) {
                differ.add(k + ": en " + placeholders(en.get(k)) + ", " + language + " " + placeholders(v));
            }
        }));
        assertEquals(List.of(), differ);
    }

    @Test
    void everyKeyTheConsoleUsesIsInTheCatalogues() throws IOException {
        Set<String> used = usedKeys();
        assertTrue(used.size() > 100, "the scan finds the console's keys: " + used.size());
        for (Map.Entry<String, Map<String, String>> c : catalogues().entrySet()) {
            Set<String> missing = new TreeSet<>(used);
            missing.removeAll(c.getValue().keySet());
            assertEquals(Set.of(), missing, "keys used but not in " + c.getKey() + ".json");
        }
    }

    @Test
    void everyKeyInTheCataloguesIsUsed() throws IOException {
        Set<String> unused = new TreeSet<>(catalogue("en").keySet());
        unused.removeAll(usedKeys());
        assertEquals(Set.of(), unused, "keys in the catalogues that the console no longer uses");
    }

    /** t(...) with anything but a literal key would escape the scan above. */
    @Test
    void appJsUsesOnlyLiteralKeys() throws IOException {
        assertEquals(Set.of("'"), matches(ANY_T_CALL, "app.js"), "t( followed by something else than a quoted key in app.js");
    }

    @Test
    void theScanSeesWhatItShould() {
        assertEquals(Set.of("a", "b"), placeholders("{a} and {b}, {a}"));
        Matcher t = T_CALL.matcher("x(t('col.id'), 'id'), format('no'), t( 'nav.audit', { n })");
        List<String> keys = new ArrayList<>();
        while (t.find()) keys.add(t.group(1));
        assertEquals(List.of("col.id", "nav.audit"), keys);
        Matcher d = DATA_I18N.matcher("<a data-i18n=\"nav.rooms\"><code data-i18n-slot=\"role\"></code><div data-i18n-label=\"lang.switch\">");
        List<String> html = new ArrayList<>();
        while (d.find()) html.add(d.group(1));
        assertEquals(List.of("nav.rooms", "lang.switch"), html);
    }
}
