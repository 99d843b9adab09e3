/**
 * Live rooms: who watches an anchor's open session now, how many of them are fans, who came to
 * which session. Owns the tables {@code room_session}, {@code room_viewer}, {@code room_count}, the
 * topic {@code roost-room-events} and the timers {@code room-heartbeat-flush}, {@code room-timeouts},
 * {@code room-clear}, {@code room-counts}, {@code room-history-purge}. Offers {@link io.roost.room.LiveRooms}
 * and its records ({@code RoomSession}, {@code Viewer}, {@code RoomStats}, ...); asks {@code social} who is a fan.
 */
package io.roost.room;
