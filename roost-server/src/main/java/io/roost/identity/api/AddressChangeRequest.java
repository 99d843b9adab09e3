package io.roost.identity.api;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/** {@code stage=request} with the new e-mail or phone; {@code stage=validate} adds the code sent to the old address (if there was one) and to the new one. */
public record AddressChangeRequest(
        @NotNull @Pattern(regexp = "request|validate", message = "must be request or validate") String stage,
        @Size(max = 254) String email,
        @Size(max = 32) String phone,
        @Size(max = 16) String oldCode,
        @Size(max = 16) String newCode) {
}
