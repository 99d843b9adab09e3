package io.roost.chat.store;

import io.roost.chat.SyncVersions;

/**
 * The SQL of a changed conversation row's sync version ({@link SyncVersions}), shared by the chat
 * stores and the tests that write a row as a writer does. Not on a store: a static method of an
 * enterprise bean is one WildFly warns about at every deployment.
 */
public final class SyncVersionSql {

    private SyncVersionSql() {
    }

    /** The writing transaction's id × {@value io.roost.chat.SyncVersions#RANKS} + the rank, given the rank's SQL. */
    public static String of(String rank) {
        return "(pg_current_xact_id()::text::int8 * " + SyncVersions.RANKS + " + " + rank + ")";
    }
}
