# Conveniences over scripts/ (the scripts are what the README and CI use).
.PHONY: build test demo demo-stop release
build:
	swift build
test:
	scripts/test.sh
demo:
	scripts/demo.sh
demo-stop:
	scripts/demo.sh stop
release:
	swift build -c release
