package io.roost.identity.api;

import io.roost.identity.AccountView;
import io.roost.identity.TokenService;

/** A new (or revived) account, and a device token when the registration named a device. */
public record RegistrationResult(AccountView account, TokenService.IssuedToken token) {
}
