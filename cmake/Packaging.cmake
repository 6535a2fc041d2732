# Installing and packaging the cuzk binary: `make install PREFIX=...` (cmake --install) and `make package`
# (a .deb through CPack). Installs the binary, the license and a man page generated from the --help texts
# with help2man (scripts/make-man.sh), so that the page never drifts from the flags.
include(GNUInstallDirs)

# Installing (and CPack, which installs into its staging tree) must not rebuild the whole tree with the
# tests: `make install` and `make package` build what they install first (the Makefile), and
# tests/scripts/package.sh runs inside `make test`, after the build.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

install(TARGETS cuzk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(EXISTS ${CMAKE_SOURCE_DIR}/LICENSE)
  install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

find_program(HELP2MAN_EXECUTABLE help2man)
option(CUZK_MAN_PAGE "Generate the man page with help2man (at build time)" ON)
if(CUZK_MAN_PAGE AND HELP2MAN_EXECUTABLE)
  set(CUZK_MAN_PAGE_FILE ${CMAKE_BINARY_DIR}/man/cuzk.1.gz)
  add_custom_command(
    OUTPUT ${CUZK_MAN_PAGE_FILE}
    COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/make-man.sh $<TARGET_FILE:cuzk> ${CUZK_MAN_PAGE_FILE}
    DEPENDS cuzk ${CMAKE_SOURCE_DIR}/scripts/make-man.sh
    COMMENT "Generating the cuzk man page from --help (help2man)"
    VERBATIM)
  add_custom_target(cuzk_man ALL DEPENDS ${CUZK_MAN_PAGE_FILE})
  install(FILES ${CUZK_MAN_PAGE_FILE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
elseif(CUZK_MAN_PAGE)
  message(STATUS "help2man not found: no man page (scripts/install-deps.sh installs it)")
endif()

# The Debian package. Its dependencies are the packages of the shared libraries the binary loads (spdlog,
# fmt, yaml-cpp, zstd, OpenSSL's libcrypto, libgomp, libstdc++, libc), computed by dpkg-shlibdeps from the
# binary itself, so that they are exact for the distribution it was built on. The CUDA runtime is linked
# statically (CUDA::cudart_static): a GPU host needs only the NVIDIA driver.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cuzk)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Filecoin PoRep commit phase 2 (C2) Groth16 batch prover (CPU and CUDA)")
set(CPACK_PACKAGE_DESCRIPTION
    "cuzk proves C1 output files into Filecoin PoRep proofs (Groth16 over BLS12-381), with per-phase timing reports, JSON results and Prometheus metrics.")
set(CPACK_PACKAGE_CONTACT "cuzk maintainers <cuzk@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
include(CPack)
