/**
 * platform: what every module needs and no module's business: ids, configuration, problem+json, authentication, the
 * migrator, RocketMQ plumbing, the outbox, group commit, health. Owns the tables outbox and consumed_message (their SQL
 * in {@code store}, beside the SQL helpers every module's stores use) and the timers outbox-relay and
 * topic-provisioning; no topic of its own. Offers OutboxPublisher, ConsumedMessages, PushConsumers, RocketMqProducer,
 * TopicDeclaration, GroupCommit, IdGenerator, HealthService, Unreachable, OncePerCluster; fires OutboxWritten, defines Notice.
 */
package io.roost.platform;
