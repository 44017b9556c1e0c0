import { existsSync } from "node:fs";
import { readPackageFolder } from "../host/python-packages.ts";
import type { PackageFile } from "../sandbox/embedded/python/index.ts";

/**
 * Debian's python3-pytest (pytest 7.2.1 and what it imports), the fixture source of pytest for the
 * tests: read from the machine, never copied into the project. scripts/ensure-reference-programs.sh
 * installs it.
 */
export const DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages";
export const PYTEST_DISTRIBUTION = [
  "pytest",
  "_pytest",
  "py.py",
  "pytest-7.2.1.dist-info",
  "pluggy",
  "pluggy-1.0.0+repack.egg-info",
  "iniconfig",
  "iniconfig-1.1.1.egg-info",
  "packaging",
  "packaging-23.0.dist-info",
  "attr",
  "attrs",
  "attrs-22.2.0.dist-info",
];

export async function debianPytest(): Promise<PackageFile[]> {
  if (!existsSync(`${DEBIAN_DIST_PACKAGES}/pytest`)) {
    throw new Error(
      `Debian's python3-pytest is missing (${DEBIAN_DIST_PACKAGES}/pytest): run scripts/ensure-reference-programs.sh`,
    );
  }
  return readPackageFolder(DEBIAN_DIST_PACKAGES, PYTEST_DISTRIBUTION);
}
