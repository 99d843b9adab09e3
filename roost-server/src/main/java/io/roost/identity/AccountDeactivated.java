package io.roost.identity;

/**
 * An account was disabled or unregistered. Fired inside the transaction that changed it; the
 * presence module ends every device session of the account in that same transaction and kicks
 * the connections after commit.
 */
public record AccountDeactivated(long accountId, String reason) {

    public static final String DISABLED = "account_disabled";
    public static final String UNREGISTERED = "account_unregistered";
}
