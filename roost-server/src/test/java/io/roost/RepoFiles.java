package io.roost;

import java.nio.file.Path;

/**
 * Files of the repository outside this module (docs/, bin/): the tests run in roost-server/, and
 * the build says where the repository's root is ({@code roost.repo.dir}).
 */
public final class RepoFiles {

    private RepoFiles() {
    }

    public static Path of(String first, String... more) {
        return Path.of(System.getProperty("roost.repo.dir", ".."), first).resolve(Path.of("", more)).toAbsolutePath().normalize();
    }
}
