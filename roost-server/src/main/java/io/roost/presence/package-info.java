/**
 * presence: device sessions (route table, presence versions, login log), RTC channel presence (Agora NCS) and MQTT client
 * presence. Owns the tables presence_node, presence_device_route, presence_user, login_log, rtc_* and mqtt_* (their SQL in
 * {@code store}); publishes roost-login-events, roost-session-kicks and roost-rtc-events, consumes roost-login-events and
 * the MQTT status topic; timers heartbeat-flush, node-heartbeat-and-session-expiry, rtc-tombstone-sweep, rtc-kicker,
 * mqtt-housekeeping. Offers session.DeviceSessions ({@code DeviceRoute}, {@code OnlineDevice}, {@code LoginLogEntry}),
 * RtcPresence and MqttPresence with their records; fires SessionEnded and PresenceChanged, observes AccountDeactivated.
 */
package io.roost.presence;
