/* The configuration device tree, compiled by dtc, linked into the image. */
    .section .config, "a"
    .balign 8
    .globl config_blob
config_blob:
#ifdef CONFIG_DTB
    .incbin CONFIG_DTB
#endif
