package io.rdma4j.rdmacore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sysfs look that spares a host without RDMA devices the binding of libibverbs: it says "no device" only
 * where libibverbs could find none, and leaves every other case to libibverbs itself.
 */
class UverbsDirectoryTest
{
    @Test
    void anAbsentDirectoryMeansNoDeviceAndNamesTheModule(@TempDir final Path sys)
    {
        final Path directory = sys.resolve(UverbsDirectory.CLASS_DIRECTORY);

        final String reason = UverbsDirectory.noDeviceReason(directory);

        assertTrue(reason.startsWith("no RDMA device: " + directory + " does not exist"), reason);
        assertTrue(reason.contains("ib_uverbs"), reason);
    }

    @Test
    void aDirectoryWithoutUverbsEntriesMeansNoDevice(@TempDir final Path sys) throws Exception
    {
        final Path directory = Files.createDirectories(sys.resolve(UverbsDirectory.CLASS_DIRECTORY));
        // what the class directory holds beside devices: the ABI version file
        Files.writeString(directory.resolve("abi_version"), "6\n");

        final String reason = UverbsDirectory.noDeviceReason(directory);

        assertTrue(reason.startsWith("no RDMA device: " + directory + " lists none"), reason);
    }

    @Test
    void aUverbsEntryLeavesTheAnswerToLibibverbs(@TempDir final Path sys) throws Exception
    {
        final Path directory = Files.createDirectories(sys.resolve(UverbsDirectory.CLASS_DIRECTORY));
        Files.writeString(directory.resolve("abi_version"), "6\n");
        Files.createDirectory(directory.resolve("uverbs0"));

        assertNull(UverbsDirectory.noDeviceReason(directory));
    }
}
