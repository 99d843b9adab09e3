package io.roost.identity.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;

/** Optional body of a token request: lifetime (default 30 days, at most 365) and a label. */
public record TokenRequest(@Min(60) @Max(31_536_000) Long ttlSeconds, @Size(max = 255) String description) {
}
