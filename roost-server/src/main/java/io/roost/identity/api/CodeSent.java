package io.roost.identity.api;

import io.roost.identity.VerificationCodes;
import java.time.OffsetDateTime;

/** Answer to {@code stage=request}: send {@code stage=validate} with the code next. */
public record CodeSent(String stage, String address, OffsetDateTime codeExpiresAt) {

    // What an operation that sends a code may answer instead (in its OpenAPI responses).
    static final String THROTTLED = "code-recently-sent, too-many-attempts: the address is throttled";
    static final String DELIVERY_FAILED = "code-delivery-failed: the e-mail or SMS gateway refused the code";
    static final String DELIVERY_UNAVAILABLE = "code-delivery-unavailable: this kind of address cannot get codes here";

    public static CodeSent of(VerificationCodes.Issued issued) {
        return new CodeSent("validate", issued.address(), issued.expiresAt());
    }
}
