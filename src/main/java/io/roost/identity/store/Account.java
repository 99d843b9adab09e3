package io.roost.identity.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
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
    @jakarta.persistence.Enumerated(jakarta.persistence.EnumType.STRING)
    private Status status = Status.ACTIVE;

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

    public String getPasswordHash() {
        return passwordHash;
    }

    public Set<String> getRoles() {
        return new LinkedHashSet<>(Arrays.asList(roles.split(",")));
    }

    public Status getStatus() {
        return status;
    }

    public boolean isActive() {
        return status == Status.ACTIVE;
    }

    public OffsetDateTime getCreatedAt() {
        return createdAt;
    }
}
