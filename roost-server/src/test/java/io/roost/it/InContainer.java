package io.roost.it;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * An in-container test class: its tests run inside the suite's deployment (every
 * {@code *InContainerIT} is part of it, {@link Deployments#suite()}), with Roost's services
 * injected. It runs alone, with no other class beside it: these tests call the server's timers'
 * work and stores directly, lock tables, and measure what the server did, which another class's
 * traffic would change. (Client-side classes run two at a time: docs/testing.md.)
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SerialArquillian.class)
@Isolated("runs inside the server and measures what it did")
public @interface InContainer {
}
