-- Admin: what each node counted in each 10 s bucket (messages sent, pushes, ack timeouts,
-- unreachable repairs), for the console's chat charts. Every node writes its own rows, read from
-- the same meters Prometheus scrapes; the console sums the nodes. The key makes a re-written
-- bucket harmless.
CREATE TABLE admin_node_sample (
    bucket  TIMESTAMPTZ  NOT NULL,
    node    INTEGER      NOT NULL,
    metric  VARCHAR(64)  NOT NULL,
    value   BIGINT       NOT NULL,
    PRIMARY KEY (bucket, node, metric)
);
