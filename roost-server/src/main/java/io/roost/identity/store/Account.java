package io.roost.identity.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

@Entity
@Table(name = "account")
public class Account {

    public enum Status { ACTIVE, DISABLED, UNREGISTERED }

    @Id
    private long id;

    @Column(nullable = false, length = 64)
    private String username;

    @Column(name = "password_hash", length = 512)
    private String passwordHash;

    @Column(nullable = false, length = 255)
    private String roles;

    @Column(nullable = false, length = 16)
    @Enumerated(EnumType.STRING)
    private Status status = Status.ACTIVE;

    @Column(length = 254)
    private String email;

    @Column(length = 16)
    private String phone;

    @Column(length = 64)
    private String nick;

    @Column(name = "avatar_url", length = 1024)
    private String avatarUrl;

    @Column(length = 16)
    private String gender;

    private Integer age;

    @Column(length = 64)
    private String region;

    /** JSON object of string to string; see {@code AccountService.params}. */
    @Column(length = 4000)
    private String params;

    /** Who disabled a DISABLED account: {@code admin} or {@code self} (only self may self-recover). */
    @Column(name = "disabled_by", length = 8)
    private String disabledBy;

    @Column(name = "status_changed_at")
    private OffsetDateTime statusChangedAt;

    @Column(name = "created_at", nullable = false)
    private OffsetDateTime createdAt;

    @Column(name = "updated_at", nullable = false)
    private OffsetDateTime updatedAt;

    @Version
    private int version;

    protected Account() {
    }

    public Account(long id, String username, String passwordHash, Set<String> roles) {
        this.id = id;
        this.username = username;
        this.passwordHash = passwordHash;
        this.roles = String.join(",", roles);
        this.createdAt = OffsetDateTime.now();
        this.updatedAt = this.createdAt;
    }

    public long getId() {
        return id;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
        touch();
    }

    public String getPasswordHash() {
        return passwordHash;
    }

    public void setPasswordHash(String passwordHash) {
        this.passwordHash = passwordHash;
        touch();
    }

    public Set<String> getRoles() {
        return roles(roles);
    }

    /** Roles as stored: comma-separated. */
    public static Set<String> roles(String stored) {
        return new LinkedHashSet<>(Arrays.asList(stored.split(",")));
    }

    public Status getStatus() {
        return status;
    }

    public boolean isActive() {
        return status == Status.ACTIVE;
    }

    public String getDisabledBy() {
        return disabledBy;
    }

    /** Moves to {@code status}; {@code disabledBy} only means something for DISABLED. */
    public void changeStatus(Status status, String disabledBy) {
        this.status = status;
        this.disabledBy = status == Status.DISABLED ? disabledBy : null;
        this.statusChangedAt = OffsetDateTime.now();
        touch();
    }

    public OffsetDateTime getStatusChangedAt() {
        return statusChangedAt;
    }

    public String getEmail() {
        return email;
    }

    public void setEmail(String email) {
        this.email = email;
        touch();
    }

    public String getPhone() {
        return phone;
    }

    public void setPhone(String phone) {
        this.phone = phone;
        touch();
    }

    public String getNick() {
        return nick;
    }

    public void setNick(String nick) {
        this.nick = nick;
        touch();
    }

    public String getAvatarUrl() {
        return avatarUrl;
    }

    public void setAvatarUrl(String avatarUrl) {
        this.avatarUrl = avatarUrl;
        touch();
    }

    public String getGender() {
        return gender;
    }

    public void setGender(String gender) {
        this.gender = gender;
        touch();
    }

    public Integer getAge() {
        return age;
    }

    public void setAge(Integer age) {
        this.age = age;
        touch();
    }

    public String getRegion() {
        return region;
    }

    public void setRegion(String region) {
        this.region = region;
        touch();
    }

    public String getParams() {
        return params;
    }

    public void setParams(String params) {
        this.params = params;
        touch();
    }

    public OffsetDateTime getCreatedAt() {
        return createdAt;
    }

    public OffsetDateTime getUpdatedAt() {
        return updatedAt;
    }

    private void touch() {
        this.updatedAt = OffsetDateTime.now();
    }
}
