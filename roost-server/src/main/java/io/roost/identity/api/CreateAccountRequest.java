package io.roost.identity.api;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Set;

public record CreateAccountRequest(
        @NotBlank @Pattern(regexp = "[A-Za-z0-9_-]{3,64}", message = "3 to 64 letters, digits, '_' or '-'") String username,
        @NotNull @Size(min = 10, max = 256) String password,
        @NotEmpty Set<@Pattern(regexp = "admin|service|user", message = "must be admin, service or user") String> roles) {
}
