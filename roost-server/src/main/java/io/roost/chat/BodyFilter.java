package io.roost.chat;

import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;

/**
 * A message body as stored: every text a user wrote in it through the {@link ContentFilter}
 * (masked, or refused with 422 {@code content-rejected}): a text or custom message's text, a
 * file's name, a location's title. A system message is a back end's own words. One-to-one and
 * group sends both go through it ({@code recipient}: the peer, or the group).
 */
@ApplicationScoped
public class BodyFilter {

    @Inject
    ContentFilter filter;

    public JsonObject filtered(long sender, long recipient, JsonObject body, boolean system) {
        if (system) {
            return body;
        }
        try {
            if (body.containsKey("text")) {
                return filteredField(sender, recipient, body, "text");
            }
            for (String part : new String[] {"media", "location"}) {
                if (body.containsKey(part)) {
                    String field = "media".equals(part) ? "name" : "title";
                    JsonObject inner = body.getJsonObject(part);
                    JsonObject checked = inner.containsKey(field) ? filteredField(sender, recipient, inner, field) : inner;
                    return checked == inner ? body : Jsonp.PROVIDER.createObjectBuilder(body).add(part, checked).build();
                }
            }
            return body;
        } catch (ContentFilter.ContentRejected e) {
            throw new ProblemException(422, "content-rejected", "Unprocessable content", e.getMessage());
        }
    }

    /** {@code object} with its string {@code field} as the filter leaves it (the same object if unchanged). */
    private JsonObject filteredField(long sender, long recipient, JsonObject object, String field) throws ContentFilter.ContentRejected {
        String text = object.getString(field);
        String checked = filter.check(sender, recipient, text);
        return checked.equals(text) ? object : Jsonp.PROVIDER.createObjectBuilder(object).add(field, checked).build();
    }
}
