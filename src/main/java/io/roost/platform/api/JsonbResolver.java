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

    @Override
    public Jsonb getContext(Class<?> type) {
        return JSONB;
    }
}
