package io.roost.platform.api;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.info.Info;
import org.eclipse.microprofile.openapi.annotations.info.License;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.security.SecuritySchemes;

/** All REST resources live under /api; the OpenAPI document is served at /openapi. */
@ApplicationPath("/api")
@OpenAPIDefinition(
        info = @Info(title = "Roost", version = "v1",
                description = "Instant-messaging and presence backend",
                license = @License(name = "Apache-2.0")),
        security = {@SecurityRequirement(name = "basic"), @SecurityRequirement(name = "bearer")})
@SecuritySchemes({
        @SecurityScheme(securitySchemeName = "basic", type = SecuritySchemeType.HTTP, scheme = "basic"),
        @SecurityScheme(securitySchemeName = "bearer", type = SecuritySchemeType.HTTP, scheme = "bearer")})
public class RoostApplication extends Application {
}
