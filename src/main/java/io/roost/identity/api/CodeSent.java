package io.roost.identity.api;

import io.roost.identity.VerificationCodes;
import java.time.OffsetDateTime;

/** Answer to {@code stage=request}: send {@code stage=validate} with the code next. */
public record CodeSent(String stage, String address, OffsetDateTime codeExpiresAt) {

    public static CodeSent of(VerificationCodes.Issued issued) {
        return new CodeSent("validate", issued.address(), issued.expiresAt());
    }
}
