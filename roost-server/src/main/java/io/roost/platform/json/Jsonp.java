package io.roost.platform.json;

import io.roost.platform.json.Jsonp;
import jakarta.json.spi.JsonProvider;

/**
 * The JSON-P provider, looked up once. {@code Jsonp.PROVIDER.createReader(...)} and friends look the
 * provider up through the ServiceLoader on every call, which inside WildFly's module class loaders
 * costs more than parsing the document itself.
 */
public final class Jsonp {

    public static final JsonProvider PROVIDER = JsonProvider.provider();

    private Jsonp() {
    }
}
