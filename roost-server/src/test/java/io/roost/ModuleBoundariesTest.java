package io.roost;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCodeUnitAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules of docs/architecture.md, checked on the compiled main classes: a module reaches
 * another only through its public face (top-level services and records, its events), never through
 * its {@code api} or {@code store} packages; modules form no cycle; every dependency runs downwards.
 */
class ModuleBoundariesTest {

    /**
     * The levels of the diagram in docs/architecture.md, bottom to top. A module may use the
     * modules of lower levels only: never one above it, nor one beside it on its own level.
     */
    static final List<List<String>> LEVELS = List.of(List.of("platform"), List.of("identity"), List.of("presence"),
            List.of("social"), List.of("group", "room", "media"), List.of("chat"), List.of("gateway", "admin"));

    static final List<String> MODULES = LEVELS.stream().flatMap(List::stream).toList();

    static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // the client library (io.roost.client, on the test class path) is no server module
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.roost").that(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("io.roost.client..")));
    }

    @Test
    void everyClassBelongsToAKnownModule() {
        classes().should().resideInAnyPackage(MODULES.stream().map(m -> "io.roost." + m + "..").toArray(String[]::new))
                .because("a new module needs its place in docs/architecture.md and in MODULES")
                .check(main);
    }

    @Test
    void noModuleUsesAnotherModulesApiOrStore() {
        // platform is the shared kernel: its api and store packages (paging, SQL helpers) exist to be used
        List<ArchRule> rules = MODULES.subList(1, MODULES.size()).stream()
                .map(module -> (ArchRule) noClasses().that().resideOutsideOfPackage("io.roost." + module + "..")
                        .should().dependOnClassesThat().resideInAnyPackage("io.roost." + module + ".api..",
                                "io.roost." + module + ".store..")
                        .because(module + "'s REST resources, DTOs, SQL and entities are its own; others use its"
                                + " services, records and events"))
                .toList();
        CompositeArchRule.of(rules).check(main);
    }

    /**
     * A call into another module neither takes nor returns that module's store or api types (an
     * entity handed out by a service is a dependency the import rule cannot see).
     */
    @Test
    void callsIntoAnotherModuleSpeakInItsPublicTypes() {
        classes().should(new ArchCondition<JavaClass>("call other modules with their public types only") {
            @Override
            public void check(JavaClass caller, ConditionEvents events) {
                String from = module(caller);
                for (JavaCodeUnitAccess<?> call : caller.getCodeUnitAccessesFromSelf()) {
                    String to = module(call.getTargetOwner());
                    if (to == null || to.equals(from) || to.equals("platform")) {
                        continue;
                    }
                    call.getTarget().resolveMember().ifPresent(target -> {
                        Set<JavaClass> involved = new HashSet<>(target.getReturnType().getAllInvolvedRawTypes());
                        target.getParameterTypes().forEach(p -> involved.addAll(p.getAllInvolvedRawTypes()));
                        for (JavaClass type : involved) {
                            String pkg = type.getPackageName();
                            if (pkg.startsWith("io.roost." + to + ".store") || pkg.startsWith("io.roost." + to + ".api")) {
                                events.add(SimpleConditionEvent.violated(call, call.getDescription() + " passes "
                                        + type.getName()));
                            }
                        }
                    });
                }
            }
        }).check(main);
    }

    /** The module a class belongs to, or null outside io.roost. */
    private static String module(JavaClass c) {
        String pkg = c.getPackageName();
        if (!pkg.startsWith("io.roost.")) {
            return null;
        }
        String rest = pkg.substring("io.roost.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    @Test
    void modulesFormNoCycle() {
        slices().matching("io.roost.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void dependenciesRunDownwards() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .withOptionalLayers(true); // a module with no classes would still pass
        for (String module : MODULES) {
            layers = layers.layer(module).definedBy("io.roost." + module + "..");
        }
        // platform is the bottom: everyone may use it
        for (int level = 1; level < LEVELS.size(); level++) {
            String[] higher = LEVELS.subList(level + 1, LEVELS.size()).stream().flatMap(List::stream)
                    .toArray(String[]::new);
            for (String module : LEVELS.get(level)) {
                layers = higher.length == 0 ? layers.whereLayer(module).mayNotBeAccessedByAnyLayer()
                        : layers.whereLayer(module).mayOnlyBeAccessedByLayers(higher);
            }
        }
        layers.check(main);
    }
}
