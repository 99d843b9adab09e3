package io.roost.platform.api;

import io.roost.platform.problem.Problem;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.Components;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.info.License;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.security.SecuritySchemes;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * All REST resources live under /api; the OpenAPI document is served at /openapi. Operations need
 * Basic or a bearer token unless {@link ApiDocumentFilter} marks them public.
 */
@ApplicationPath("/api")
@OpenAPIDefinition(
        info = @Info(title = "Roost", version = "v1",
                description = "Instant-messaging and presence backend. Every failure is application/problem+json "
                        + "(RFC 9457) whose type urn:roost:problem:<slug> is stable; the responses list the slugs.",
                license = @License(name = "Apache License 2.0", identifier = "Apache-2.0")),
        security = {@SecurityRequirement(name = "basic"), @SecurityRequirement(name = "bearer")},
        tags = {
                @Tag(name = "platform", description = "Health of this node"),
                @Tag(name = "identity", description = "Accounts, registration, login, tokens, finding users"),
                @Tag(name = "social", description = "Follows, friend requests, blocks and permissions"),
                @Tag(name = "groups", description = "Groups and channels, their members and requests"),
                @Tag(name = "presence", description = "Device sessions, RTC channels (and the Agora NCS webhook), MQTT clients"),
                @Tag(name = "rooms", description = "Live rooms: sessions, viewers, counts and fans"),
                @Tag(name = "chat", description = "One-to-one messages: send, conversations, history, delete for me"),
                @Tag(name = "media", description = "Files in chat: uploads, downloads, signed links"),
                @Tag(name = "gateway", description = "This node's device connections"),
                @Tag(name = "admin", description = "The admin console: its sign-in, the overview and operators' actions")},
        components = @Components(schemas = @Schema(name = ApiDocumentFilter.PROBLEM_SCHEMA, implementation = Problem.class)))
@SecuritySchemes({
        @SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic"),
        @SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer")})
public class RoostApplication extends Application {
}
