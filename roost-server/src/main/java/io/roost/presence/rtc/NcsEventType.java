package io.roost.presence.rtc;

/**
 * Agora NCS RTC channel event types and what each means for a member. 101/102 are channel
 * lifecycle (ordered by {@code ts}); the others carry a per-user {@code clientSeq}.
 */
public final class NcsEventType {

    public static final int CHANNEL_CREATE = 101;
    public static final int CHANNEL_DESTROY = 102;
    public static final int BROADCASTER_JOIN = 103;
    public static final int BROADCASTER_LEAVE = 104;
    public static final int AUDIENCE_JOIN = 105;
    public static final int AUDIENCE_LEAVE = 106;
    public static final int COMMUNICATION_JOIN = 107;
    public static final int COMMUNICATION_LEAVE = 108;
    public static final int ROLE_TO_BROADCASTER = 111;
    public static final int ROLE_TO_AUDIENCE = 112;

    /** Leave reason that marks abnormal frequent join/leave: kick the user after a delay. */
    public static final int REASON_ABNORMAL = 999;

    private NcsEventType() {
    }

    public static boolean isChannelEvent(int type) {
        return type == CHANNEL_CREATE || type == CHANNEL_DESTROY;
    }

    public static boolean isMemberEvent(int type) {
        return (type >= BROADCASTER_JOIN && type <= COMMUNICATION_LEAVE) || type == ROLE_TO_BROADCASTER
                || type == ROLE_TO_AUDIENCE;
    }

    public static boolean isKnown(int type) {
        return isChannelEvent(type) || isMemberEvent(type);
    }

    /** Online after this member event? Joins and role changes: yes; leaves: no. */
    public static boolean online(int type) {
        return switch (type) {
            case BROADCASTER_JOIN, AUDIENCE_JOIN, COMMUNICATION_JOIN, ROLE_TO_BROADCASTER, ROLE_TO_AUDIENCE -> true;
            case BROADCASTER_LEAVE, AUDIENCE_LEAVE, COMMUNICATION_LEAVE -> false;
            default -> throw new IllegalArgumentException("not a member event: " + type);
        };
    }

    /** The role a member event states (a leave states the role the user left with). */
    public static RtcRole role(int type) {
        return switch (type) {
            case BROADCASTER_JOIN, BROADCASTER_LEAVE, ROLE_TO_BROADCASTER -> RtcRole.BROADCASTER;
            case AUDIENCE_JOIN, AUDIENCE_LEAVE, ROLE_TO_AUDIENCE -> RtcRole.AUDIENCE;
            case COMMUNICATION_JOIN, COMMUNICATION_LEAVE -> RtcRole.COMMUNICATION;
            default -> throw new IllegalArgumentException("not a member event: " + type);
        };
    }
}
