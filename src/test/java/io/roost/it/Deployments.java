package io.roost.it;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/** The integration tests deploy the real roost.war that Maven built, plus their own classes. */
public final class Deployments {

    private Deployments() {
    }

    public static WebArchive roost() {
        String war = System.getProperty("roost.war", "target/roost.war");
        return ShrinkWrap.createFromZipFile(WebArchive.class, new File(war));
    }
}
