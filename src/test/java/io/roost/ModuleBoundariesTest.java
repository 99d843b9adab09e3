package io.roost;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;
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
            List.of("social"), List.of("group", "room"), List.of("chat"), List.of("gateway", "admin"));

    static final List<String> MODULES = LEVELS.stream().flatMap(List::stream).toList();

    static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.roost");
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

    @Test
    void modulesFormNoCycle() {
        slices().matching("io.roost.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void dependenciesRunDownwards() {
        LayeredArchitecture layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
                .withOptionalLayers(true); // chat is planned and has no classes yet
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
