// placeholder: implemented by the corpus work
