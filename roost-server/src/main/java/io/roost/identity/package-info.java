/**
 * identity: accounts, registration and verification codes, logins and throttling, profiles, bearer tokens, user search.
 * Owns the tables account, access_token, verification_code and auth_throttle (their SQL in {@code store}), the topic
 * {@code roost-sms} and the timer {@code identity-housekeeping}. The entity {@code store.Account} never leaves identity.
 * Offers AccountService (others ask {@code isActive}, {@code requireActiveUser}) and AccountView, RegistrationService,
 * LoginService, TokenService ({@code Grant}, {@code IssuedToken}), VerificationCodes, AuthThrottle; fires AccountDeactivated.
 */
package io.roost.identity;
