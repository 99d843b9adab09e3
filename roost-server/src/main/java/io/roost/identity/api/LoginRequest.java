package io.roost.identity.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/**
 * A device login: {@code login} (user name, e-mail or +phone) and {@code password}, or
 * {@code uid} and the {@code token} the device kept from an earlier login.
 */
public record LoginRequest(
        @Size(max = 254) String login,
        @Size(max = 256) String password,
        @Size(max = 20) String uid,
        @Size(max = 100) String token,
        @NotBlank @Size(max = 16) String deviceType,
        @NotBlank @Size(max = 128) String deviceId) {
}
