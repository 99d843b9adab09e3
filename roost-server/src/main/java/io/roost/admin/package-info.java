/**
 * admin: the operators' API and console sign-in: the overview gathered from each module's services, the metrics
 * charts, and actions on accounts, groups, rooms, channels and chat messages (recall), every one audited. Owns the tables admin_audit,
 * admin_sample and admin_sample_bucket (their SQL in {@code store}) and the timer {@code admin-metrics}; no topic.
 * Offers AdminActions, AuditTrail ({@code Entry}), Overview ({@code Numbers}), MetricsSampler ({@code Series}) and
 * AdminSettings to its own REST resources; it is a top module: nothing else uses it. No events.
 */
package io.roost.admin;
