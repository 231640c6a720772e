/* Stands in for cmocka's header when configure did not find cmocka (it
 * warned): the program builds without it, `make check` stops here. */
#error "make check needs cmocka: install the Debian package libcmocka-dev, then run ./configure again"
