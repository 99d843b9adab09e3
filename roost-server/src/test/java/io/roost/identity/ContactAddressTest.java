package io.roost.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.problem.ProblemException;
import org.junit.jupiter.api.Test;

class ContactAddressTest {

    @Test
    void emailIsTrimmedAndLowerCased() {
        ContactAddress a = ContactAddress.email("  Alice.Smith@Example.ORG ");
        assertEquals("alice.smith@example.org", a.value());
        assertEquals("email:alice.smith@example.org", a.key());
    }

    @Test
    void phoneIsE164WithoutPunctuation() {
        assertEquals("+8613800000000", ContactAddress.phone("+86 138-0000-0000").value());
        assertEquals("phone:+15551234567", ContactAddress.phone("+1 (555) 123-4567").key());
    }

    @Test
    void malformedAddressesAreBadRequests() {
        for (String bad : new String[] {"", "plain", "a@b", "a b@c.org", "a@@c.org", "@c.org", "x".repeat(250) + "@c.org"}) {
            ProblemException e = assertThrows(ProblemException.class, () -> ContactAddress.email(bad), bad);
            assertEquals("invalid-email", e.type());
            assertEquals(400, e.status());
        }
        for (String bad : new String[] {"", "13800000000", "+0123456789", "+12", "+1234567890123456", "+1555abc4567"}) {
            assertEquals("invalid-phone", assertThrows(ProblemException.class, () -> ContactAddress.phone(bad), bad).type());
        }
    }

    @Test
    void exactlyOneOfEmailAndPhone() {
        assertEquals(ContactAddress.Kind.PHONE, ContactAddress.either(null, "+15551234567").kind());
        assertEquals("one-address", assertThrows(ProblemException.class, () -> ContactAddress.either(null, null)).type());
        assertEquals("one-address",
                assertThrows(ProblemException.class, () -> ContactAddress.either("a@b.org", "+15551234567")).type());
    }
}
