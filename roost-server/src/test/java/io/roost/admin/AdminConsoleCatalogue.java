package io.roost.admin;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The admin console's message catalogues, src/main/webapp/admin/i18n/{language}.json, for the tests. */
public final class AdminConsoleCatalogue {

    public static final Path ADMIN = Path.of("src", "main", "webapp", "admin");
    public static final List<String> LANGUAGES = List.of("en", "zh-CN");

    private AdminConsoleCatalogue() {
    }

    /** The messages of one language by key, in the file's order; fails on a value that is no string. */
    public static Map<String, String> read(String language) {
        Path file = ADMIN.resolve("i18n").resolve(language + ".json");
        try (Reader in = Files.newBufferedReader(file); var reader = Json.createReader(in)) {
            JsonObject o = reader.readObject();
            Map<String, String> messages = new LinkedHashMap<>();
            o.forEach((key, value) -> {
                if (value.getValueType() != JsonValue.ValueType.STRING) {
                    throw new IllegalStateException(file + ": " + key + " is no string");
                }
                messages.put(key, ((JsonString) value).getString());
            });
            return messages;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
