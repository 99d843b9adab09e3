package io.roost.identity.api;

import jakarta.json.bind.annotation.JsonbNillable;
import java.util.List;

/** A page of users; {@code next} is the cursor for the following page (null on the last). */
@JsonbNillable
public record UserPage(List<UserView> items, String next) {
}
