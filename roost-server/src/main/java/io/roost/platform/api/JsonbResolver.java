package io.roost.platform.api;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/**
 * One Jsonb for every request. Without a resolver RESTEasy builds a new Jsonb (a ServiceLoader
 * scan through the module class loaders) for each response it writes; that was the largest CPU
 * cost of the webhook under load.
 */
@Provider
public class JsonbResolver implements ContextResolver<Jsonb> {

    private static final Jsonb JSONB = JsonbBuilder.create();

    /** The same Jsonb outside JAX-RS (frames carry the views REST returns). */
    public static Jsonb jsonb() {
        return JSONB;
    }

    @Override
    public Jsonb getContext(Class<?> type) {
        return JSONB;
    }
}
