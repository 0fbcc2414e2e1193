from helium.cli import main

main()
