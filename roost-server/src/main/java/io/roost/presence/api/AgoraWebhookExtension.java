package io.roost.presence.api;

import io.undertow.servlet.ServletExtension;
import io.undertow.servlet.api.DeploymentInfo;
import jakarta.servlet.ServletContext;

/**
 * Puts {@link AgoraWebhookHandler} in front of the deployment's servlet chain (registered in
 * {@code META-INF/services/io.undertow.servlet.ServletExtension}).
 */
public class AgoraWebhookExtension implements ServletExtension {

    @Override
    public void handleDeployment(DeploymentInfo deployment, ServletContext context) {
        deployment.addInitialHandlerChainWrapper(next -> new AgoraWebhookHandler(next, context));
    }
}
