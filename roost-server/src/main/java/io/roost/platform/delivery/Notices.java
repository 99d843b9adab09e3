package io.roost.platform.delivery;

import java.util.List;

/**
 * Several {@link Notice}s of one transaction, fired as one event: each transactional observer
 * event costs the container a synchronization and a request context after commit, and a batch of
 * receipts announces hundreds of cursors at once.
 */
public record Notices(List<Notice> all) {
}
