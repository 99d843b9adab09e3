package io.roost.identity.api;

import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * Anonymous registration: {@code username} (and optionally a password), no code. By e-mail or
 * phone: {@code stage=request} with the address, then {@code stage=validate} with the address,
 * the code, and optionally a user name (default {@code u<id>}) and a password. With
 * {@code deviceType} and {@code deviceId} the answer carries a device token, logging in at once.
 */
public record RegistrationRequest(
        @Pattern(regexp = "request|validate", message = "must be request or validate") String stage,
        @Pattern(regexp = "[A-Za-z0-9_-]{3,64}", message = "3 to 64 letters, digits, '_' or '-'") String username,
        @Size(min = 10, max = 256) String password,
        @Size(max = 254) String email,
        @Size(max = 32) String phone,
        @Size(max = 16) String code,
        @Size(max = 16) String deviceType,
        @Size(max = 128) String deviceId) {
}
