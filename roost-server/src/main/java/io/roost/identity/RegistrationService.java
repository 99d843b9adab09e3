package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.identity.store.Account;
import io.roost.identity.store.AccountStore;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.problem.Unreachable;
import io.roost.platform.security.Roles;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Transactional;
import java.util.Optional;
import java.util.Set;

/**
 * Everything that proves control of an address with a code:
 * registration by e-mail or phone, password reset, self-recovery, and changing the address.
 * Anonymous registration (a user name, no code) lives here too.
 */
@ApplicationScoped
public class RegistrationService {

    @Inject
    AccountStore store;

    @Inject
    AccountService accounts;

    @Inject
    VerificationCodes codes;

    @Inject
    PasswordHasher hasher;

    @Inject
    TokenService tokens;

    @Transactional
    public Account registerAnonymous(String username, String password) {
        if (username == null) {
            throw ProblemException.badRequest("username-required", "Anonymous registration needs a user name.");
        }
        return accounts.insert(username, password == null ? null : hashChecked(password), Set.of(Roles.USER), null);
    }

    /** Stage 1: a code to the address, unless an account already has it (then: log in or reset). */
    public VerificationCodes.Issued requestRegistration(ContactAddress address) {
        accounts.findByAddress(address).filter(a -> a.getStatus() != Account.Status.UNREGISTERED)
                .ifPresent(a -> {
                    throw AccountService.alreadyRegistered(address);
                });
        return codes.issue(address, VerificationCodes.Purpose.REGISTER, null);
    }

    /**
     * Stage 2: the code creates the account, or revives an unregistered one with the same address
     * under its old id (an unregistered number is never given to anyone else).
     */
    @Transactional
    public Account completeRegistration(ContactAddress address, String code, String username, String password) {
        String hash = password == null ? null : hashChecked(password);
        AccountService.checkUsername(username);
        codes.consume(address, VerificationCodes.Purpose.REGISTER, code);
        Optional<Account> existing = accounts.findByAddress(address);
        if (existing.isPresent()) {
            Account a = accounts.lock(existing.get().getId());
            if (a.getStatus() != Account.Status.UNREGISTERED) {
                throw AccountService.alreadyRegistered(address);
            }
            a.changeStatus(Account.Status.ACTIVE, null);
            a.setPasswordHash(hash);
            return a;
        }
        return accounts.insert(username, hash, Set.of(Roles.USER), address);
    }

    /** A reset code goes only to an address that has an account; the answer is the same either way. */
    public VerificationCodes.Issued requestPasswordReset(ContactAddress address) {
        Optional<Account> account = accounts.findByAddress(address).filter(Account::isActive);
        if (account.isEmpty()) {
            return new VerificationCodes.Issued(address.value(), VerificationCodes.Purpose.RESET.wire(), null);
        }
        return codes.issue(address, VerificationCodes.Purpose.RESET, account.get().getId());
    }

    /** Sets the new password and revokes every token: whoever knew the old one is logged out. */
    @Transactional
    public Account resetPassword(ContactAddress address, String code, String newPassword) {
        String hash = hashChecked(newPassword);
        long id = codes.consume(address, VerificationCodes.Purpose.RESET, code)
                .orElseThrow(() -> ProblemException.badRequest("invalid-code", "The code is wrong or expired."));
        Account a = accounts.lock(id);
        if (!a.isActive()) {
            throw ProblemException.conflict("account-not-active", "The account is not active.");
        }
        a.setPasswordHash(hash);
        tokens.revokeAll(id);
        return a;
    }

    /** Self-recovery of an account its owner disabled (an operator's disable needs an operator). */
    public VerificationCodes.Issued requestRecovery(ContactAddress address) {
        Optional<Account> account = accounts.findByAddress(address)
                .filter(a -> a.getStatus() == Account.Status.DISABLED && "self".equals(a.getDisabledBy()));
        if (account.isEmpty()) {
            return new VerificationCodes.Issued(address.value(), VerificationCodes.Purpose.RECOVER.wire(), null);
        }
        return codes.issue(address, VerificationCodes.Purpose.RECOVER, account.get().getId());
    }

    @Transactional
    public Account completeRecovery(ContactAddress address, String code) {
        long id = codes.consume(address, VerificationCodes.Purpose.RECOVER, code)
                .orElseThrow(() -> ProblemException.badRequest("invalid-code", "The code is wrong or expired."));
        Account a = accounts.lock(id);
        if (a.getStatus() != Account.Status.DISABLED || !"self".equals(a.getDisabledBy())) {
            throw ProblemException.conflict("not-self-recoverable", "Only an account its owner disabled can be recovered this way.");
        }
        a.changeStatus(Account.Status.ACTIVE, null);
        return a;
    }

    /**
     * Changing the e-mail or phone: codes to the current address of that kind (if any) and to the
     * new one, so a found phone alone cannot move the account.
     */
    @Transactional
    public VerificationCodes.Issued requestAddressChange(long accountId, ContactAddress newAddress) {
        Account a = accounts.require(accountId);
        if (!a.isActive()) {
            throw ProblemException.conflict("account-not-active", "The account is not active.");
        }
        if (accounts.findByAddress(newAddress).isPresent()) {
            throw ProblemException.conflict("address-taken", "Another account has this address.");
        }
        current(a, newAddress.kind()).ifPresent(old -> codes.issue(old, VerificationCodes.Purpose.CHANGE_OLD, accountId));
        return codes.issue(newAddress, VerificationCodes.Purpose.CHANGE_NEW, accountId);
    }

    @Transactional
    public Account completeAddressChange(long accountId, ContactAddress newAddress, String oldCode, String newCode) {
        Account a = accounts.lock(accountId);
        Optional<ContactAddress> old = current(a, newAddress.kind());
        if (old.isPresent()) {
            checkOwner(codes.consume(old.get(), VerificationCodes.Purpose.CHANGE_OLD, oldCode), accountId);
        }
        checkOwner(codes.consume(newAddress, VerificationCodes.Purpose.CHANGE_NEW, newCode), accountId);
        if (newAddress.kind() == ContactAddress.Kind.EMAIL) {
            a.setEmail(newAddress.value());
        } else {
            a.setPhone(newAddress.value());
        }
        try {
            store.flush();
        } catch (PersistenceException e) {
            if (Unreachable.isCause(e)) {
                throw e; // not a taken address: the database went away (503)
            }
            throw ProblemException.conflict("address-taken", "Another account has this address.");
        }
        return a;
    }

    private static void checkOwner(Optional<Long> codeAccount, long accountId) {
        if (codeAccount.isEmpty() || codeAccount.get() != accountId) {
            throw ProblemException.badRequest("invalid-code", "The code is wrong or expired.");
        }
    }

    private static Optional<ContactAddress> current(Account a, ContactAddress.Kind kind) {
        String v = kind == ContactAddress.Kind.EMAIL ? a.getEmail() : a.getPhone();
        return Optional.ofNullable(v).map(x -> new ContactAddress(kind, x));
    }

    private String hashChecked(String password) {
        AccountService.checkPassword(password);
        return hasher.hash(password);
    }
}
