package io.roost.identity.api;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The two-stage body of every code flow: {@code stage=request} sends a code to the e-mail or phone,
 * {@code stage=validate} carries it back with whatever the operation needs.
 */
public record CodeStageRequest(
        @NotNull @Pattern(regexp = "request|validate", message = "must be request or validate") String stage,
        @Size(max = 254) String email,
        @Size(max = 32) String phone,
        @Size(max = 16) String code,
        @Size(max = 256) String newPassword) {
}
