package io.roost.identity.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/** A profile update: absent or null fields stay as they are; "" clears a text field, -1 clears age. */
public record ProfileRequest(
        @Pattern(regexp = "[A-Za-z0-9_-]{3,64}", message = "3 to 64 letters, digits, '_' or '-'") String username,
        @Size(max = 64) String nick,
        @Size(max = 1024) String avatarUrl,
        @Size(max = 16) String gender,
        @Min(-1) @Max(150) Integer age,
        @Size(max = 64) String region,
        @Size(max = 32) Map<String, String> params) {
}
