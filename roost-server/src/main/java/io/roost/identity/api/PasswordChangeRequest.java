package io.roost.identity.api;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

public record PasswordChangeRequest(@Size(max = 256) String currentPassword,
                                    @NotNull @Size(min = 10, max = 256) String newPassword) {
}
