# libzip as the imported target iclverify::libzip (used by the build and by iclverifyConfig.cmake).
# Debian 12's libzip-dev ships a CMake package whose targets file also imports the zipcmp/zipmerge/ziptool
# programs, which live in other packages, and fails without them; so the header and library are found here.
if(NOT TARGET iclverify::libzip)
  find_path(ICLVERIFY_LIBZIP_INCLUDE_DIR zip.h)
  find_library(ICLVERIFY_LIBZIP_LIBRARY zip)
  if(ICLVERIFY_LIBZIP_INCLUDE_DIR AND ICLVERIFY_LIBZIP_LIBRARY)
    add_library(iclverify::libzip UNKNOWN IMPORTED)
    set_target_properties(iclverify::libzip PROPERTIES IMPORTED_LOCATION "${ICLVERIFY_LIBZIP_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${ICLVERIFY_LIBZIP_INCLUDE_DIR}")
  endif()
endif()
