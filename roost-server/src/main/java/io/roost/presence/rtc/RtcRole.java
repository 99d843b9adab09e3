package io.roost.presence.rtc;

/** A member's role in an RTC channel; the code is what rtc_member.role stores. */
public enum RtcRole {
    BROADCASTER(1), AUDIENCE(2), COMMUNICATION(3);

    public final short code;

    RtcRole(int code) {
        this.code = (short) code;
    }

    public static RtcRole of(int code) {
        return switch (code) {
            case 1 -> BROADCASTER;
            case 2 -> AUDIENCE;
            case 3 -> COMMUNICATION;
            default -> throw new IllegalArgumentException("role code " + code);
        };
    }
}
